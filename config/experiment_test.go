package config

import "testing"

func TestExperimentalKey(t *testing.T) {
	opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": "servers:\n  demo2:\n    command: x\n    experimental: [file-inputs]\n  plain:\n    command: y\n"}, nil)
	opts.NoImports = true
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, s := range c.Servers {
		on[s.Name] = s.Experiment(ExperimentFileInputs)
	}
	if !on["demo2"] || on["plain"] {
		t.Errorf("file-inputs on: %v", on)
	}
}
