package cli

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	installed := &debug.BuildInfo{ // what go install github.com/elicitty/elicitty@v1.4.0 records
		Main: debug.Module{Path: "github.com/elicitty/elicitty", Version: "v1.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"},
		},
	}
	devel := &debug.BuildInfo{ // go build in a modified checkout
		Main: debug.Module{Path: "github.com/elicitty/elicitty", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "fedcba9876543210"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name           string
		ver, rev, when string
		info           *debug.BuildInfo
		want           string
	}{
		{"release ldflags win", "v2.0.0", "abc1234", "2026-06-01T00:00:00Z", installed, "2.0.0 (commit abc1234, built 2026-06-01T00:00:00Z)"},
		{"go install", "", "", "", installed, "1.4.0 (commit 0123456789ab, built 2026-05-01T10:00:00Z)"},
		{"devel build", "", "", "", devel, "dev (commit fedcba987654+dirty)"},
		{"no build info", "", "", "", nil, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolveVersion(tt.ver, tt.rev, tt.when, tt.info).String(); got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
		})
	}
}
