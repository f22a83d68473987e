// Package colour is printworker's colour-management engine: it parses ICC profiles
// (v2 and v4; matrix/TRC, lut8, lut16, lutAtoB and lutBtoA), converts sRGB to a CMYK
// output profile through the profile's B2A tables with a chosen rendering intent and
// optional black-point compensation, and converts CMYK back to sRGB for soft proofs.
//
// The numbers follow LittleCMS (the reference the tests measure against with
// transicc): PCS values flow through the same normalised encodings, lut16 Lab tables
// get the same v2/v4 Lab fix-ups, tabulated curves and CLUTs are evaluated at 16-bit
// input precision, Lab-indexed output tables use trilinear interpolation, and black
// points come from the same detection algorithms (including the Adobe destination
// black-point fit and the fixed v4 perceptual black). The package is pure Go and
// does no I/O except LoadProfile.
package colour

import (
	"errors"
	"fmt"
	"strings"
)

// Error classes, for errors.Is. All three are permanent: the same profile or intent
// fails the same way on every retry.
var (
	// ErrInvalidProfile: the bytes are not a usable ICC profile (corrupt, truncated,
	// oversized, unsupported version or tag type).
	ErrInvalidProfile = errors.New("invalid ICC profile")
	// ErrWrongProfile: a valid profile of the wrong kind for the job (an RGB profile
	// where CMYK is needed, a device link, a profile without the needed tables).
	ErrWrongProfile = errors.New("wrong kind of ICC profile")
	// ErrUnknownIntent: a rendering intent outside the four ICC intents.
	ErrUnknownIntent = errors.New("unknown rendering intent")
)

// classError keeps an error's message and adds a class for errors.Is.
type classError struct {
	class, err error
}

func (e classError) Error() string   { return e.err.Error() }
func (e classError) Unwrap() []error { return []error{e.class, e.err} }

func classify(class, err error) error {
	if err == nil || errors.Is(err, class) {
		return err
	}
	return classError{class, err}
}

// Intent is an ICC rendering intent, numbered as in the ICC header.
type Intent int

// The four ICC rendering intents.
const (
	Perceptual           Intent = 0
	RelativeColorimetric Intent = 1
	Saturation           Intent = 2
	AbsoluteColorimetric Intent = 3
)

// ParseIntent reads an intent name as used in configuration and on the command line.
func ParseIntent(s string) (Intent, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "perceptual", "0":
		return Perceptual, nil
	case "relative", "relative-colorimetric", "relativecolorimetric", "1":
		return RelativeColorimetric, nil
	case "saturation", "2":
		return Saturation, nil
	case "absolute", "absolute-colorimetric", "absolutecolorimetric", "3":
		return AbsoluteColorimetric, nil
	}
	return 0, classify(ErrUnknownIntent, fmt.Errorf("colour: unknown rendering intent %q (want perceptual, relative, saturation or absolute)", s))
}

// String returns the intent's canonical name (ParseIntent reads it back).
func (i Intent) String() string {
	switch i {
	case Perceptual:
		return "perceptual"
	case RelativeColorimetric:
		return "relative-colorimetric"
	case Saturation:
		return "saturation"
	case AbsoluteColorimetric:
		return "absolute-colorimetric"
	}
	return fmt.Sprintf("intent(%d)", int(i))
}

func (i Intent) valid() error {
	if i < Perceptual || i > AbsoluteColorimetric {
		return classify(ErrUnknownIntent, fmt.Errorf("colour: unknown rendering intent %d", int(i)))
	}
	return nil
}
