package main

import (
	"flag"

	"github.com/printworker/printworker/intake"
)

// wixFlags are the Wix webhook settings of serve (docs/intake.md, "Wix headers and
// events").
type wixFlags struct {
	publicKey    string
	designField  string
	stores       mapFlag
	defaultStore string
	domains      mapFlag
}

func addWixFlags(fs *flag.FlagSet) *wixFlags {
	f := &wixFlags{}
	fs.StringVar(&f.publicKey, "wix-public-key", "", "the Wix app's public key(s), PEM (several blocks for rotation), verifying the RS256 JWT bodies; none disables /webhooks/wix")
	fs.String("wix-public-key-file", "", "file holding the Wix app's public key(s), PEM")
	fs.StringVar(&f.designField, "wix-design-field", intake.DefaultWixDesignField, "title of the line item's custom text field holding the design reference <id>.<token> (any case)")
	fs.Var(&f.stores, "wix-store", "app instance id=hub store id, repeatable")
	fs.StringVar(&f.defaultStore, "wix-default-store", "", "hub store id of instances not listed in --wix-store")
	fs.Var(&f.domains, "wix-domain", "app instance id=order domain sent to the hub, repeatable (default: the instance id)")
	return f
}

func (f *wixFlags) apply(c *intake.Config) error {
	if f.publicKey != "" {
		keys, err := intake.ParseWixPublicKeys([]byte(f.publicKey))
		if err != nil {
			return usageError("--wix-public-key: " + err.Error())
		}
		c.Wix.PublicKeys = keys
	}
	c.Wix.DesignField = f.designField
	c.Wix.Stores = f.stores
	c.Wix.DefaultStore = f.defaultStore
	c.Wix.Domains = f.domains
	return nil
}
