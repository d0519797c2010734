package session

import (
	"fmt"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
)

// setInit gives the search the initial parameters of --init-params, if
// any.
func setInit(eng *core.Engine, path string) error {
	if path == "" {
		return nil
	}
	theta, err := config.ReadInit(path)
	if err != nil {
		return err
	}
	if err := eng.SetInit(theta); err != nil {
		return fmt.Errorf("--init-params %s: %w; write the model's parameters as one flat float32 vector", path, err)
	}
	return nil
}
