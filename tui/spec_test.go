package tui

import "github.com/maple-ood/maple/loaders"

func loadersSpec(name string) loaders.Spec { return loaders.DefaultSpec(name) }
