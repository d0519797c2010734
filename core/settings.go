package core

import "github.com/maple-ood/maple/record"

// Settings configures a MAPLE search: run.json's search settings, kept
// in package record (record.Settings) with their defaults and checks.
type Settings = record.Settings

// LearningRates are the three rates that can change during a search
// (record.LearningRates).
type LearningRates = record.LearningRates

// DefaultSettings returns the defaults documented on Settings.
func DefaultSettings() Settings { return record.DefaultSettings() }

// The names a setting may take where it takes one of a few
// (record.OuterOns, ...): Check refuses any other, and completion offers
// them. Recipe may also be "" (none).
var (
	OuterOns       = record.OuterOns
	InnerInits     = record.InnerInits
	SelectIterates = record.SelectIterates
	Precisions     = record.Precisions
	Recipes        = record.Recipes
)
