package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/printworker/printworker/intake"
)

const storesHelp = `Usage: printworker stores <action> [flags]

Actions:
  register   create or update a store's webhooks through its API (bigcommerce,
             woocommerce, shopify), pointing at the intake; prints what it did

Run 'printworker stores <action> --help' for its flags. See docs/intake.md.
`

func storesCommand() command {
	return command{
		name:    "stores",
		summary: "connect a store: create or update its webhooks through the platform's API",
		run: func(ctx context.Context, e env, args []string) error {
			return subcommand(ctx, e, "stores", args, map[string]func(context.Context, env, []string) error{
				"register": storesRegister,
			}, storesHelp)
		},
	}
}

// storesRegister is printworker stores register: the platform's webhook API is read
// and the subscriptions the intake needs are created or updated (intake.Register*).
func storesRegister(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "stores register", "stores register --platform bigcommerce|woocommerce|shopify --intake-url https://intake.example.com [flags]\n\nCreates or updates the store's order webhooks through its API, delivering to\n<intake-url>/webhooks/<platform>, and prints one line per topic (created, updated,\nunchanged). Takes the store flags of serve and work.")
	platform := fs.String("platform", "", "bigcommerce, woocommerce or shopify")
	intakeURL := fs.String("intake-url", "", "public base URL of the intake (BigCommerce: https on port 443)")
	timeout := fs.Duration("timeout", 30*time.Second, "bound of each API request")
	stf := addStoreFlags(fs)
	woof := addWooCommerceFlags(fs)
	wooAPI := addWooCommerceAPIFlags(fs)
	shop := fs.String("shopify-shop", "", "the shop (my-shop.myshopify.com)")
	shopToken := fs.String("shopify-access-token", "", "Admin API access token of the shop (scope read_orders)")
	fs.String("shopify-access-token-file", "", "file holding --shopify-access-token")
	shopVersion := fs.String("shopify-api-version", "2025-01", "Admin API version")
	shopURL := fs.String("shopify-api-url", "", "Admin API base (default https://<shop>)")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	dest, err := intake.Destination(*intakeURL, *platform)
	if err != nil {
		return usageError(err.Error())
	}
	c := &http.Client{Timeout: *timeout}
	var res []intake.HookResult
	switch *platform {
	case intake.PlatformBigCommerce:
		if len(stf.bcHeader) == 0 {
			return usageError("--bigcommerce-header-secret is needed: it is the header the hooks carry")
		}
		res, err = intake.RegisterBigCommerce(ctx, c, stf.bc.APIURL, stf.bc.StoreHash, stf.bc.Token, dest, stf.bc.HeaderName, stf.bcHeader[len(stf.bcHeader)-1])
	case intake.PlatformWooCommerce:
		if len(woof.secrets) == 0 {
			return usageError("--woocommerce-secret is needed: it signs the webhooks")
		}
		res, err = intake.RegisterWooCommerce(ctx, c, wooAPI.url, wooAPI.key, wooAPI.secret, dest, woof.secrets[len(woof.secrets)-1])
	case "shopify":
		base := *shopURL
		if base == "" && *shop != "" {
			base = "https://" + *shop
		}
		res, err = intake.RegisterShopify(ctx, c, base, *shopVersion, *shopToken, dest)
	default:
		return usageError(fmt.Sprintf("--platform %q: want bigcommerce, woocommerce or shopify", *platform))
	}
	for _, r := range res {
		fmt.Fprintf(e.stdout, "%-8s %s  %s  (id %s)\n", r.Action, r.Topic, dest, r.ID)
	}
	if err != nil {
		return err
	}
	if *platform == "shopify" {
		fmt.Fprintln(e.stdout, "Shopify signs these webhooks with the app's client secret: give it to serve's --shopify-secret.")
	}
	return nil
}
