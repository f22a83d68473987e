// Package deploy holds printworker's deployment files (Dockerfile, compose stack,
// kustomize base and overlays, Grafana dashboard, alert rules) and the tests that
// validate them offline. It has no code of its own.
package deploy
