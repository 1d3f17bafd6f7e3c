package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

// TestGrantsFromConfigHeadless reaches OAuth-protected servers the way a CI job
// would: the grant comes from the config file, no browser is involved, and no secret
// shows in --json, stderr or the wire log.
func TestGrantsFromConfigHeadless(t *testing.T) {
	const secret = "cfg-client-secret-xyz"
	const workload = "workload-identity-token-abc"
	srv := oauthtest.New(t, oauthtest.Config{Clients: map[string]string{"ci-bot": secret}, WorkloadToken: workload})
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(workload+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	yaml := "servers:\n" +
		"  cc:\n    url: " + srv.URL + "\n    oauth:\n      grant: client_credentials\n      clientId: ci-bot\n      clientSecret: ${CC_SECRET}\n" +
		"  wif-file:\n    url: " + srv.URL + "\n    oauth:\n      grant: jwt_bearer\n      identityTokenFile: " + tokenFile + "\n" +
		"  wif-env:\n    url: " + srv.URL + "\n    oauth:\n      grant: jwt_bearer\n      identityTokenEnv: CI_ID_TOKEN\n" +
		"  wif-unset:\n    url: " + srv.URL + "\n    oauth:\n      grant: jwt_bearer\n      identityTokenEnv: UNSET_ID_TOKEN\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + t.TempDir(), "CC_SECRET=" + secret, "CI_ID_TOKEN=" + workload}
	for _, target := range []string{"cc", "wif-file", "wif-env"} {
		logPath := filepath.Join(t.TempDir(), "wire.jsonl")
		res, n := runSignIn(t, env, "call", target, "echo", "text=hi", "--json", "--config", cfg, "--no-imports", "--log", logPath, "--no-wait")
		if res.code != 0 || n != 0 || !strings.Contains(res.stdout, "echo: hi") {
			t.Fatalf("%s: exit %d after %d browser sign-ins, want 0 after 0\nstdout: %s\nstderr: %s", target, res.code, n, res.stdout, res.stderr)
		}
		logData, _ := os.ReadFile(logPath)
		texts := map[string]string{"--json output": res.stdout, "stderr": res.stderr, "wire log": string(logData)}
		noSecrets(t, srv, texts)
		for name, text := range texts {
			if strings.Contains(text, secret) || strings.Contains(text, workload) {
				t.Errorf("%s: %s shows the client secret or identity token", target, name)
			}
		}
	}
	if c := srv.Counts(); c.ClientCredentials != 1 || c.JWTBearer != 2 || c.Authorizations != 0 {
		t.Errorf("counts = %+v; want 1 client_credentials and 2 jwt-bearer grants, no browser sign-in", c)
	}
	res, _ := runSignIn(t, env, "tools", "wif-unset", "--config", cfg, "--no-imports", "--no-wait")
	if res.code == 0 || !strings.Contains(res.stderr, "identity token") || !strings.Contains(res.stderr, "UNSET_ID_TOKEN") {
		t.Errorf("unset identity token variable: exit %d, stderr %q; want a failure naming the step and the variable", res.code, res.stderr)
	}
}
