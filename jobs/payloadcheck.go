package jobs

import (
	"errors"
	"fmt"
)

// checker is a payload that can tell whether its fields make a task: Decode ends a
// task whose payload decodes but misses what its constructor requires (a store, an
// order id, a design reference) with ErrPayload and the fields named, rather than
// letting the handler fail later with a less readable reason, or succeed doing
// nothing.
type checker interface{ check() error }

func (p OrderPush) check() error {
	errs := []error{p.OrderKey.validate()}
	switch p.Op {
	case OpCreate, OpUpdate:
		if p.Order == nil {
			errs = append(errs, fmt.Errorf("%s push without the order", p.Op))
		}
	case OpDelete:
	default:
		errs = append(errs, fmt.Errorf("push op %q: want create, update or delete", p.Op))
	}
	return errors.Join(errs...)
}

func (p DesignExport) check() error {
	errs := []error{p.OrderKey.validate()}
	if _, err := p.DesignRef(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (p OrderComplete) check() error { return p.OrderKey.validate() }

func (p TemplatesSync) check() error {
	if p.Store == "" {
		return errors.New("store is empty")
	}
	return nil
}

func (p GangBuild) check() error {
	if p.Store == "" || p.Group == "" {
		return errors.New("store and group are required")
	}
	return nil
}

func (p DayPage) check() error {
	if p.Folder == "" {
		return errors.New("folder is empty")
	}
	return nil
}

func (p EventPublish) check() error {
	errs := []error{p.OrderKey.validate()}
	if p.ID == "" || p.Type == "" {
		errs = append(errs, errors.New("event id and type are required"))
	}
	return errors.Join(errs...)
}

func (p EventDeliver) check() error {
	if p.ID == "" || p.Endpoint == "" || len(p.Body) == 0 {
		return errors.New("event id, endpoint and body are required")
	}
	return nil
}

func (p Reprint) check() error { return p.validate() }
func (p Review) check() error  { return p.validate() }
