// Package hub adapts the personalization hub's interface (spec: hub-interface.md, gaps
// filled per hub-gaps.md and docs/hub-client.md): typed models of every resource that
// keep unknown fields across decode -> encode, HMAC request signing, the paths and
// header names of the versions v1, 2022-08 and 2023-10, and a Client for the whole
// interface.
//
// # Client
//
// NewClient takes a Config (store, key, secret, and an Endpoint per resource: base
// URL, version and the vendor word of header names). Every call takes a context, is
// signed with the verification string of its operation, and returns a *Error on
// failure.
//
// Orders: CreateOrder, UpdateOrder, DeleteOrder send one request each. PushOrder,
// PushOrderUpdate and PushOrderDelete are what a job calls: they skip orders without
// customizations, validate (ValidateOrder) before sending, and converge duplicates
// (409 on create -> update, 404 on update -> create, 404 on delete -> done), so a job
// that is retried after an answer was lost ends in the same state. Their ...Through
// forms make each request through an OrderCalls, so a caller that limits requests
// sees the converging second one too.
//
// Templates: ListTemplates (one page), AllTemplates (an iterator over every page with
// no assumed page size), GetTemplate, CreateTemplate, UpdateTemplate, DeleteTemplate.
//
// Designs: GetDesign, ExportDesign, ExportView and OpenMedia. Downloads stream: the
// caller gets a size-capped reader, the content type, the file name from
// Content-Disposition, the kind (from Content-Type, else magic bytes) and the length.
//
// # Errors and retries
//
// The client never retries by itself: the job queue does, with its own backoff and
// failure budget. Every failure says whether a retry can help. *Error implements
// Retryable (network failures, bodies cut short, 408, 425, 429, 5xx) and RetryAfter
// (the hub's Retry-After, seconds or HTTP date); all other statuses, oversized and
// malformed answers, and *ValidationError are permanent.
package hub
