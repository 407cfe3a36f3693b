package adkversion

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": "latest", "latest": "latest", "1.18": "1.18", "1.18.0": "1.18", "v1.18": "1.18", "1.21": "1.21", "2.0": "2.0"} {
		v, err := Parse(in)
		if err != nil || v.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"1", "1.x", "1.17", "0.9", "1.18.0.1", "-1.20"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func TestRulesByVersion(t *testing.T) {
	v118, _ := Parse("1.18")
	v121, _ := Parse("1.21")
	latest, _ := Parse("")
	if !v118.StemsAll() || !v118.StrictResultDetails() || v118.RubricIDsInPrompts() || !v118.ConfirmationStartsInvocation() || v118.HasIgnoreArgs() || v118.MatchTypeByName() ||
		v118.CaseRubrics() || !v118.TransferReturnsNull() || v118.LooseRubricAnswers() {
		t.Errorf("1.18's rules wrong")
	}
	for _, v := range []Version{v121, latest} {
		if v.StemsAll() || v.StrictResultDetails() || !v.RubricIDsInPrompts() || v.ConfirmationStartsInvocation() || !v.HasIgnoreArgs() || !v.MatchTypeByName() ||
			!v.CaseRubrics() || v.TransferReturnsNull() || !v.LooseRubricAnswers() {
			t.Errorf("%s's rules wrong", v)
		}
	}
}
