package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Release builds set these with -ldflags "-X
// github.com/elicitty/elicitty/internal/cli.version=..." and likewise commit and date
// (goreleaser does). Builds without them (go install, go build) fall
// back to the module version and VCS stamp in Go's build info.
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildVersion is what this binary reports about itself.
type buildVersion struct {
	Version  string // semantic version without "v", or "dev"
	Commit   string // VCS revision; "" when unknown
	Date     string // commit or build time, RFC 3339; "" when unknown
	Modified bool   // built from a working tree with uncommitted changes
}

// currentVersion returns the version of the running binary.
func currentVersion() buildVersion {
	info, _ := debug.ReadBuildInfo()
	return resolveVersion(version, commit, date, info)
}

// resolveVersion prefers the values set at link time and fills what they lack from
// info (nil when the binary has no build info).
func resolveVersion(ver, rev, when string, info *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: strings.TrimPrefix(ver, "v"), Commit: rev, Date: when}
	if info != nil {
		if v.Version == "" {
			// "(devel)" is a build inside the module's own tree without a VCS tag;
			// go install module@version records that version.
			if mv := info.Main.Version; mv != "" && mv != "(devel)" {
				v.Version = strings.TrimPrefix(mv, "v")
			}
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.time":
				if v.Date == "" {
					v.Date = s.Value
				}
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	return v
}

// String is the --version line after "elicitty version ": the version, then the
// commit and date when known.
func (v buildVersion) String() string {
	var extra []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += "+dirty"
		}
		extra = append(extra, "commit "+c)
	}
	if v.Date != "" {
		extra = append(extra, "built "+v.Date)
	}
	if len(extra) == 0 {
		return v.Version
	}
	return fmt.Sprintf("%s (%s)", v.Version, strings.Join(extra, ", "))
}
