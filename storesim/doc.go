// Package storesim simulates the store platforms whose webhooks carry ids only
// (BigCommerce, Etsy): each simulator keeps orders, sends signed webhooks about them
// to an intake URL, and serves the API the intake's fetch job reads the orders from,
// with the platform's headers, authentication and rate limit answers.
//
// Faults are scripted, not random, so a test knows what happened: the next API
// requests can be answered 429 with Retry-After (and the platform's rate limit
// headers), 5xx, or held until the client gives up (a timeout); webhooks can be sent
// twice (a duplicate, as the platforms do) and in any order (Deliver).
//
// Tests use it in process (Handler on an httptest server); `printworker demo
// --platform` serves one as the demo's store (docs/demo.md, "Orders from another
// platform"), and a staging setup can serve it as a stand-in store. Nothing in it is
// for production.
package storesim
