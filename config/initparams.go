package config

import (
	"fmt"

	"github.com/maple-ood/maple/loaders"
)

// ReadInit reads a flat vector of initial parameters (--init-params).
func ReadInit(path string) ([]float32, error) {
	shape, theta, err := loaders.ReadNPYFile(path)
	if err != nil {
		return nil, fmt.Errorf("--init-params: %w", err)
	}
	if len(shape) != 1 {
		return nil, fmt.Errorf("--init-params %s: shape %v, want one flat vector of parameters", path, shape)
	}
	return theta, nil
}
