//go:build onednn

package main

func init() { buildTags = append(buildTags, "onednn") }
