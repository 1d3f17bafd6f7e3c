package desc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRuleHasAFixture checks that each rule's code, with its severity, is
// asserted by at least one fixture's .want file, so no rule goes untested.
func TestEveryRuleHasAFixture(t *testing.T) {
	var all strings.Builder
	wants, err := filepath.Glob("testdata/*/*.want")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, r := range rules {
		if !strings.Contains(all.String(), string(r.severity)+" "+r.code+" ") {
			t.Errorf("rule %d (%s %v): no fixture asserts %s %s", r.n, r.id, r.requirements, r.severity, r.code)
		}
	}
}

// rule is one checkable §12 rule: its rc.3 rule id, requirement ids and the code it
// emits. Rule ids are not codes; they are recorded here and in the fixtures.
type rule struct {
	n            int
	id           string
	requirements []string
	code         string
	severity     Severity
}

// rules lists MCPDESC.md §2 in order.
var rules = [...]rule{
	{1, "mcpdesc.tool.members", []string{"req-elicitations-non-empty"}, CodeSchema, SevError},
	{2, "mcpdesc.elicitation.members", []string{"req-elicitation-declaration-fields"}, CodeSchema, SevError},
	{3, "mcpdesc.elicitation.members", []string{"req-elicitation-name-format"}, CodeSchema, SevError},
	{4, "mcpdesc.elicitation.name-unique", []string{"req-elicitation-name-unique"}, CodeDuplicateName, SevError},
	{5, "mcpdesc.elicitation.members", []string{"req-elicitation-message"}, CodeSchema, SevError},
	{6, "mcpdesc.elicitation.members", []string{"req-elicitation-documentation-fields"}, CodeSchema, SevError},
	{7, "mcpdesc.elicitation.members", []string{"req-elicitation-form-schema-required", "req-elicitation-form-no-url"}, CodeSchema, SevError},
	{8, "mcpdesc.elicitation.members", []string{"req-elicitation-url-no-schema", "req-elicitation-url-syntax"}, CodeSchema, SevError},
	{9, "mcp.elicitation.form-schema.members", []string{"req-elicitation-form-shape"}, CodeSchema, SevError},
	{10, "mcpdesc.components.references", []string{"req-elicitation-schema-references-resolved"}, CodeMissingRef, SevError},
	{10, "mcpdesc.components.references", []string{"req-elicitation-schema-references-resolved"}, CodeWrongRefNamespace, SevError},
	{10, "mcpdesc.components.references", []string{"req-elicitation-schema-references-resolved"}, CodeRefCycle, SevError},
	{11, "mcp.elicitation.form-schema.protocol-shape", []string{"req-elicitation-form-vocabulary"}, CodeFormVersionMismatch, SevError},
	{12, "mcpdesc.elicitation.form-schema.consistency", []string{"req-elicitation-form-required"}, CodeRequiredUnknown, SevError},
	{12, "mcpdesc.elicitation.form-schema.consistency", []string{"req-elicitation-form-enum-names"}, CodeEnumNamesMismatch, SevError},
	{12, "mcpdesc.elicitation.form-schema.consistency", []string{"req-elicitation-form-defaults"}, CodeDefaultOutsideEnum, SevError},
	{12, "mcpdesc.elicitation.form-schema.consistency", []string{"req-elicitation-form-ranges"}, CodeInvalidRange, SevError},
	{13, "mcpdesc.protocol-scope.consistency", []string{"req-elicitation-scope"}, CodeScopeOutsideParent, SevError},
	{14, "mcp.elicitation.protocol-version", []string{"req-elicitation-protocol-versions"}, CodeModeNotSupported, SevError},
	{15, "mcpdesc.legacy-protocol.validation-scope", []string{"req-elicitation-legacy-incomplete"}, CodeLegacyIncomplete, SevWarning},
}
