package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadOwnFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string // under config/elicitty/
		body string
		env  map[string]string
		want string // the whole error, $ROOT for the temporary root
	}{
		{
			name: "bad duration",
			file: "config.yaml",
			body: "servers:\n  demo:\n    command: x\n    timeout: 3x\n",
			want: `$ROOT/config/elicitty/config.yaml:4:5: servers.demo.timeout: invalid duration "3x" (want e.g. 30s or 2m)`,
		},
		{
			name: "negative duration",
			file: "config.yaml",
			body: "servers:\n  demo:\n    command: x\n    timeout: -1s\n",
			want: `$ROOT/config/elicitty/config.yaml:4:5: servers.demo.timeout: must not be negative`,
		},
		{
			name: "unknown server key",
			file: "config.yaml",
			body: "servers:\n  demo:\n    command: x\n    comand: y\n",
			want: `$ROOT/config/elicitty/config.yaml:4:5: servers.demo.comand: unknown key (want command, args, env, cwd, url, headers, headersOnRedirect, type, protocol, timeout, handshakeTimeout, urlWait, validation, urlPolicy, maxRounds, restart, maxRestarts, oauth, roots, noRoots, logLevel or experimental)`,
		},
		{
			name: "unknown top-level key",
			file: "config.yaml",
			body: "server:\n  demo: {command: x}\n",
			want: `$ROOT/config/elicitty/config.yaml:1:1: server: unknown key (want servers or sampling)`,
		},
		{
			name: "unknown policy key",
			file: "config.yaml",
			body: "servers:\n  demo:\n    url: https://x.test\n    urlPolicy:\n      https_only: true\n",
			want: `$ROOT/config/elicitty/config.yaml:5:7: servers.demo.urlPolicy.https_only: unknown key (want disabled, allowedHosts, httpsOnly or open)`,
		},
		{
			name: "yaml syntax",
			file: "config.yaml",
			body: "servers:\n  demo:\n    command: [x\n    args: y\n",
			want: `$ROOT/config/elicitty/config.yaml:3: invalid YAML: did not find expected ',' or ']' (in the block or list that starts on this line)`,
		},
		{
			name: "yaml tab indentation",
			file: "config.yaml",
			body: "servers:\n\tdemo:\n",
			want: `$ROOT/config/elicitty/config.yaml:2: invalid YAML: found character that cannot start any token`,
		},
		{
			name: "yaml duplicate key",
			file: "config.yml",
			body: "servers:\n  demo: {command: a}\n  demo: {command: b}\n",
			want: `$ROOT/config/elicitty/config.yml:3:3: duplicate key "demo" (first at line 2)`,
		},
		{
			name: "json trailing comma",
			file: "config.json",
			body: "{\n  \"servers\": {\n    \"demo\": {\"command\": \"x\",}\n  }\n}\n",
			want: `$ROOT/config/elicitty/config.json:3:29: invalid JSON: invalid character '}' looking for beginning of object key string`,
		},
		{
			name: "json missing colon",
			file: "config.json",
			body: "{\"servers\": {\n  \"demo\" {}}}",
			want: `$ROOT/config/elicitty/config.json:2:10: invalid JSON: invalid character '{' after object key`,
		},
		{
			name: "json truncated",
			file: "config.json",
			body: "{\"servers\": {\"demo\": {\"command\": \"x\"",
			want: `$ROOT/config/elicitty/config.json:1:37: invalid JSON: unexpected end of file`,
		},
		{
			name: "json trailing data",
			file: "config.json",
			body: "{\"servers\": {}}\n{}",
			want: `$ROOT/config/elicitty/config.json:2:1: unexpected data after the top-level value`,
		},
		{
			name: "json wrong type",
			file: "config.json",
			body: "{\"servers\": {\n  \"demo\": {\"command\": \"x\", \"args\": \"--verbose\"}\n}}",
			want: `$ROOT/config/elicitty/config.json:2:28: servers.demo.args: must be a list of strings, got a string`,
		},
		{
			name: "json duplicate key",
			file: "config.json",
			body: "{\"servers\": {\"a\": {\"command\": \"x\"}, \"a\": {\"command\": \"y\"}}}",
			want: `$ROOT/config/elicitty/config.json:1:37: duplicate key "a" (first at line 1)`,
		},
		{
			name: "servers not an object",
			file: "config.yaml",
			body: "servers: [a, b]\n",
			want: `$ROOT/config/elicitty/config.yaml:1:10: servers: must be an object of servers by name, got a list`,
		},
		{
			name: "top level not an object",
			file: "config.yaml",
			body: "- a\n",
			want: `$ROOT/config/elicitty/config.yaml:1:1: the top level must be an object, got a list`,
		},
		{
			name: "unset variable",
			file: "config.yaml",
			body: "servers:\n  api:\n    url: https://x.test/mcp\n    headers:\n      Authorization: Bearer ${API_TOKEN}\n",
			want: `$ROOT/config/elicitty/config.yaml:5:7: servers.api.headers.Authorization: environment variable "API_TOKEN" is not set (use ${API_TOKEN:-} to allow empty)`,
		},
		{
			name: "unterminated reference",
			file: "config.yaml",
			body: "servers:\n  s:\n    command: ${HOME\n",
			want: `$ROOT/config/elicitty/config.yaml:3:5: servers.s.command: unterminated ${ at character 1`,
		},
		{
			name: "input outside vs code",
			file: "config.yaml",
			body: "servers:\n  s:\n    command: x\n    args: [\"${input:tok}\"]\n",
			want: `$ROOT/config/elicitty/config.yaml:4:12: servers.s.args[0]: ${input:tok}: inputs are only available in VS Code mcp.json files`,
		},
		{
			name: "bad open policy and host pattern",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: https://x.test\n    urlPolicy:\n      open: always\n      allowedHosts: [example.com, \"*\", https://a.test, \"a.*.test\", \"x.test:443\"]\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:5:7: servers.s.urlPolicy.open: invalid value "always" (want open or copy-only)`,
				`$ROOT/config/elicitty/config.yaml:6:35: servers.s.urlPolicy.allowedHosts[1]: invalid host pattern "*": a bare * is not allowed; leave allowedHosts empty to allow every host`,
				`$ROOT/config/elicitty/config.yaml:6:40: servers.s.urlPolicy.allowedHosts[2]: invalid host pattern "https://a.test": give a host, not a URL`,
				`$ROOT/config/elicitty/config.yaml:6:56: servers.s.urlPolicy.allowedHosts[3]: invalid host pattern "a.*.test": * is only allowed as the first label (*.example.com)`,
				`$ROOT/config/elicitty/config.yaml:6:68: servers.s.urlPolicy.allowedHosts[4]: invalid host pattern "x.test:443": give a host without a port`,
			}, "\n"),
		},
		{
			name: "command and url",
			file: "config.yaml",
			body: "servers:\n  s:\n    command: x\n    url: https://x.test\n",
			want: `$ROOT/config/elicitty/config.yaml:4:5: servers.s.url: set either command (stdio) or url (http), not both`,
		},
		{
			name: "neither command nor url",
			file: "config.yaml",
			body: "servers:\n  s:\n    timeout: 1s\n",
			want: `$ROOT/config/elicitty/config.yaml:2:3: servers.s: needs a command (stdio server) or a url (http server)`,
		},
		{
			name: "bad url scheme",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: ftp://x.test\n",
			want: `$ROOT/config/elicitty/config.yaml:3:5: servers.s.url: invalid url: the scheme is not http or https`,
		},
		{
			name: "bad type and validation",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: https://x.test\n    type: websocket\n    validation: yes\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:4:5: servers.s.type: unknown type "websocket" (want stdio, http or sse)`,
				`$ROOT/config/elicitty/config.yaml:5:5: servers.s.validation: must be true or false, got a string`,
			}, "\n"),
		},
		{
			name: "bad protocol and rounds",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: https://x.test\n    protocol: latest\n    maxRounds: -1\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:4:5: servers.s.protocol: invalid protocol version "latest" (want a date such as 2025-11-25)`,
				`$ROOT/config/elicitty/config.yaml:5:5: servers.s.maxRounds: must be between 0 and 1000`,
			}, "\n"),
		},
		{
			name: "values from variables are quoted as written",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: https://x.test\n    protocol: ${P}\n    timeout: ${T}\n    urlPolicy: {open: \"${O}\"}\n",
			env:  map[string]string{"P": "latest", "T": "3x", "O": "always"},
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:5:5: servers.s.timeout: invalid duration "${T}" (want e.g. 30s or 2m)`,
			}, "\n"),
		},
		{
			name: "values from variables are quoted as written in validation",
			file: "config.yaml",
			body: "servers:\n  s:\n    url: https://x.test\n    protocol: ${P}\n    urlPolicy: {open: \"${O}\"}\n",
			env:  map[string]string{"P": "latest", "O": "always"},
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:4:5: servers.s.protocol: invalid protocol version "${P}" (want a date such as 2025-11-25)`,
				`$ROOT/config/elicitty/config.yaml:5:17: servers.s.urlPolicy.open: invalid value "${O}" (want open or copy-only)`,
			}, "\n"),
		},
		{
			name: "bad restart policy",
			file: "config.yaml",
			body: "servers:\n  s:\n    command: x\n    restart: always\n    maxRestarts: -1\n  h: {url: \"https://x.test\", restart: on-failure}\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:4:5: servers.s.restart: unknown policy "always" (want on-failure or never)`,
				`$ROOT/config/elicitty/config.yaml:5:5: servers.s.maxRestarts: must be between 0 and 100`,
				`$ROOT/config/elicitty/config.yaml:6:30: servers.h.restart: applies to stdio servers only`,
			}, "\n"),
		},
		{
			name: "bad server name",
			file: "config.yaml",
			body: "servers:\n  \"-x\": {command: a}\n  \"my server\": {command: b}\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:2:3: servers.-x: server name "-x" must not start with -`,
				`$ROOT/config/elicitty/config.yaml:3:3: servers.my server: server name "my server" must not contain spaces or control characters`,
			}, "\n"),
		},
		{
			name: "errors in two servers are all reported",
			file: "config.yaml",
			body: "servers:\n  a: {command: x, timeout: 1}\n  b: {url: \"https://x.test\", maxRounds: many}\n",
			want: strings.Join([]string{
				`$ROOT/config/elicitty/config.yaml:2:19: servers.a.timeout: invalid duration "1" (want e.g. 30s or 2m)`,
				`$ROOT/config/elicitty/config.yaml:3:30: servers.b.maxRounds: must be a whole number`,
			}, "\n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, root := layout(t, map[string]string{"config/elicitty/" + tt.file: tt.body}, tt.env)
			cfg, err := Load(opts)
			if err == nil {
				t.Fatalf("Load succeeded with %v, want error", cfg.Servers)
			}
			if diff := cmp.Diff(tt.want, rel(root, err.Error())); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("error %T is not a *config.Error", err)
			}
		})
	}
}

func TestLoadOwnFileLocation(t *testing.T) {
	t.Run("missing --config", func(t *testing.T) {
		opts, root := layout(t, nil, nil)
		opts.Path = filepath.Join(root, "nope.yaml")
		_, err := Load(opts)
		if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
			t.Fatalf("Load = %v, want an error naming nope.yaml", err)
		}
	})
	t.Run("--config wins over the default file", func(t *testing.T) {
		opts, root := layout(t, map[string]string{
			"config/elicitty/config.yaml": "servers: {default: {command: a}}\n",
			"elsewhere.conf":              "{\"servers\": {\"flag\": {\"command\": \"b\"}}}",
		}, nil)
		opts.Path = filepath.Join(root, "elsewhere.conf")
		cfg, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"flag"}, cfg.Names()); diff != "" {
			t.Errorf("names (-want +got):\n%s", diff)
		}
	})
	t.Run("ELICITTY_CONFIG", func(t *testing.T) {
		opts, root := layout(t, map[string]string{"x.yaml": "servers: {env: {command: a}}\n"}, nil)
		opts.Getenv = mapEnv(map[string]string{"ELICITTY_CONFIG": filepath.Join(root, "x.yaml")})
		cfg, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"env"}, cfg.Names()); diff != "" {
			t.Errorf("names (-want +got):\n%s", diff)
		}
	})
	t.Run("two default files", func(t *testing.T) {
		opts, root := layout(t, map[string]string{
			"config/elicitty/config.yaml": "servers: {}\n",
			"config/elicitty/config.json": "{}",
		}, nil)
		_, err := Load(opts)
		want := "several config files, keep one: $ROOT/config/elicitty/config.yaml, $ROOT/config/elicitty/config.json"
		if err == nil || rel(root, err.Error()) != want {
			t.Fatalf("Load = %v, want %q", err, want)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": "# nothing yet\n"}, nil)
		cfg, err := Load(opts)
		if err != nil || len(cfg.Servers) != 0 {
			t.Fatalf("Load = %v, %v; want no servers and no error", cfg.Servers, err)
		}
	})
	t.Run("nothing anywhere", func(t *testing.T) {
		opts, _ := layout(t, nil, nil)
		cfg, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Config{}, cfg); diff != "" {
			t.Errorf("config (-want +got):\n%s", diff)
		}
	})
}
