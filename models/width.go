package models

import (
	"strconv"
	"strings"
)

// Width is the first hidden layer's width of a model spec ("mlp:390,390"
// is 390; 0 for a model without one): the x axis of the width figures.
func Width(spec string) int {
	_, args, ok := strings.Cut(spec, ":")
	if !ok {
		return 0
	}
	first, _, _ := strings.Cut(args, ",")
	w, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return w
}
