// Package storesim simulates the store platforms whose webhooks carry ids only
// (BigCommerce, Etsy): each simulator keeps orders, sends signed webhooks about them
// to an intake URL, and serves the API the intake's fetch job reads the orders from,
// with the platform's headers, authentication and rate limit answers.
//
// Faults are scripted, not random, so a test knows what happened: the next API
// requests can be answered 429 with Retry-After (and the platform's rate limit
// headers), 5xx, or held until the client gives up (a timeout); webhooks can be sent
// twice (a duplicate, as the platforms do) and in any order (Deliver), or dropped:
// the store took the order and its webhook never arrives (Dropped).
//
// Every simulator also serves its platform's order list, filtered by modification
// time and paged as the platform pages it (Shopify's Link header, WooCommerce's
// X-WP-TotalPages, BigCommerce's pages and 204, Etsy's offset and count, Wix's
// cursors), which the reconciliation sweeps (package reconcile) read: Shopify and
// WixSite are the order APIs of those platforms.
//
// Tests use it in process (Handler on an httptest server); `printworker demo
// --platform` serves one as the demo's store (docs/demo.md, "Orders from another
// platform"), and a staging setup can serve it as a stand-in store. Nothing in it is
// for production.
package storesim
