package render

import "strings"

// OutputCondition is the printing condition a PDF/X output intent names
// (docs/colour.md "Registered output conditions"): a characterization the ICC
// registry lists (FOGRA39, FOGRA51, CRPC6), or the shop's own.
type OutputCondition struct {
	// Identifier is the OutputConditionIdentifier: the registry's name, or the
	// shop's own.
	Identifier string
	// Info describes the condition in words (the output intent's /Info).
	Info string
	// Registry is the RegistryName: http://www.color.org for a registered
	// condition, empty for a shop's own.
	Registry string
	// Files are the file names of ICC profiles made for the condition, looked for
	// when a profile names the condition without an ICC file.
	Files []string
}

// ICCRegistry is the RegistryName of the conditions the ICC registers.
const ICCRegistry = "http://www.color.org"

// registeredConditions are the characterizations printworker knows by name, as
// the ICC's registry of characterization data names them.
var registeredConditions = []OutputCondition{
	{Identifier: "FOGRA39", Registry: ICCRegistry,
		Info:  "Offset printing according to ISO 12647-2:2004/Amd 1, paper type 1 or 2 (gloss or matte coated), screen ruling 60/cm (FOGRA39L)",
		Files: []string{"ISOcoated_v2_eci.icc", "ISOcoated_v2_300_eci.icc", "CoatedFOGRA39.icc"}},
	{Identifier: "FOGRA51", Registry: ICCRegistry,
		Info:  "Offset printing according to ISO 12647-2:2013, PS1 premium coated paper, screen ruling 60/cm (FOGRA51L)",
		Files: []string{"PSOcoated_v3.icc"}},
	{Identifier: "CRPC6", Registry: ICCRegistry,
		Info:  "GRACoL 2013: commercial offset on grade 1 coated paper according to CGATS.21-2 (CRPC6)",
		Files: []string{"GRACoL2013_CRPC6.icc", "CGATS21_CRPC6.icc"}},
}

// conditionAliases are other names of registered conditions.
var conditionAliases = map[string]string{"gracol2013": "CRPC6", "gracol": "CRPC6"}

// RegisteredCondition returns the registered condition of that name (any case;
// GRACoL2013 is CRPC6).
func RegisteredCondition(name string) (OutputCondition, bool) {
	if a, ok := conditionAliases[strings.ToLower(name)]; ok {
		name = a
	}
	for _, c := range registeredConditions {
		if strings.EqualFold(c.Identifier, name) {
			c.Files = append([]string(nil), c.Files...)
			return c, true
		}
	}
	return OutputCondition{}, false
}

// RegisteredConditionNames lists the registered conditions' names.
func RegisteredConditionNames() []string {
	var out []string
	for _, c := range registeredConditions {
		out = append(out, c.Identifier)
	}
	return out
}
