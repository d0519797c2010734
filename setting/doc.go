// Package setting is what the settings of core and train share to refuse
// a value: the error that names the refused field (Error), the ranges of
// numeric settings (Interval) and the checks that build such errors. It
// knows no flag: package config renders a field's error with its flag
// (Renamed).
package setting
