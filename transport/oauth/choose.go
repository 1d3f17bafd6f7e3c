package oauth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/zalando/go-keyring"
)

// The token store modes ChooseOptions.Mode accepts (ELICITTY_TOKEN_STORE).
const (
	StoreAuto    = "auto"    // the OS keyring when one answers, else the file
	StoreKeyring = "keyring" // the OS keyring, or an error
	StoreFile    = "file"    // the 0600 file
)

// probeTimeout bounds the check that a keyring service answers.
const probeTimeout = 3 * time.Second

// ChooseOptions configures ChooseStore.
type ChooseOptions struct {
	// Mode is StoreAuto (also ""), StoreKeyring or StoreFile.
	Mode string
	// Path is the file store's path (DefaultStorePath).
	Path string
	// Service is the keyring service name; "" means KeyringService.
	Service string
	// Warn receives what the file store repaired (see Store); nil drops it.
	Warn func(msg string)
	// Getenv reads the environment (the D-Bus session bus address); nil means os.Getenv.
	Getenv func(string) string
	// Probe checks that the keyring answers; nil asks the OS keyring.
	Probe func() error
}

// Choice is the token store ChooseStore picked and why.
type Choice struct {
	Store  TokenStore
	Reason string // why this store, for doctor
}

// ChooseStore picks where tokens are kept: the OS keyring when a keyring service
// answers (or Mode asks for it), else the 0600 file at Path, as on a headless Linux
// machine without a Secret Service.
func ChooseStore(o *ChooseOptions) (Choice, error) {
	if o == nil {
		o = &ChooseOptions{}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	file := func(reason string) (Choice, error) {
		if o.Path == "" {
			return Choice{}, fmt.Errorf("no place for OAuth tokens: %s, and neither XDG_STATE_HOME nor HOME is set", reason)
		}
		return Choice{Store: NewFileStore(o.Path, &StoreOptions{Warn: o.Warn}), Reason: reason}, nil
	}
	switch o.Mode {
	case StoreFile:
		return file("ELICITTY_TOKEN_STORE=file")
	case "", StoreAuto, StoreKeyring:
	default:
		return Choice{}, fmt.Errorf("ELICITTY_TOKEN_STORE must be auto, keyring or file, not %q", o.Mode)
	}
	probe := o.Probe
	if probe == nil {
		probe = func() error { return probeKeyring(o.Service, getenv) }
	}
	err := probe()
	if err == nil {
		reason := "a keyring service answers"
		if o.Mode == StoreKeyring {
			reason = "ELICITTY_TOKEN_STORE=keyring"
		}
		return Choice{Store: NewKeyring(o.Service), Reason: reason}, nil
	}
	if o.Mode == StoreKeyring {
		return Choice{}, fmt.Errorf("ELICITTY_TOKEN_STORE=keyring, but the OS keyring is unavailable: %w", err)
	}
	return file("no OS keyring: " + err.Error())
}

// probeKeyring checks that the OS keyring answers. On Linux and the BSDs that needs
// a D-Bus session bus with a Secret Service on it; without a bus nothing is tried, so
// no bus is started as a side effect.
func probeKeyring(service string, getenv func(string) string) error {
	if service == "" {
		service = KeyringService
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		bus := ""
		if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
			bus = filepath.Join(dir, "bus")
		}
		if fi, err := os.Stat(bus); bus == "" || err != nil || fi.Mode()&os.ModeSocket == 0 {
			return errors.New("no D-Bus session bus")
		}
	}
	_, err := bounded(probeTimeout, func() (string, error) { return keyring.Get(service, "probe") })
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}
