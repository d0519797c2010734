//go:build openblas

package main

func init() { buildTags = append(buildTags, "openblas") }
