package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// queues list shows a task's last error whole: the hub's message comes last in a
// wrapped error and was cut off at 160 characters (issue 11).
func TestPrintTasksWholeError(t *testing.T) {
	hubMsg := `hub: 422 Unprocessable Entity: {"message":"design 42 was deleted by the customer on 2024-03-14"}`
	lastErr := "export store-1/shop.example/1001 design 42.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b view back:\n" +
		strings.Repeat("fetch design detail: ", 8) + hubMsg
	var out bytes.Buffer
	err := printTasks(&out, []*asynq.TaskInfo{{ID: "t-1", Type: "design:export", MaxRetry: 25, Retried: 25,
		LastErr: lastErr, LastFailedAt: time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), hubMsg) {
		t.Errorf("the hub's message is missing:\n%s", out.String())
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n"); n != 1 {
		t.Errorf("%d lines, want a header and one task line:\n%s", n+1, out.String())
	}
}
