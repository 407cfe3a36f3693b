// Names for agents that send none (a plain genai client, not ADK): the
// model's name, numbered when several unnamed agents share a model, so a
// message reads "agent gemini-2.5-flash" rather than "agent agent".

package conversation

import (
	"strconv"
	"strings"
)

// nameOf is the name of c's agent: the one found on the wire or given
// before, else its model's name (then model-2, model-3 for other unnamed
// agents on that model).
func (o *Organizer) nameOf(c *Call) string {
	if n := o.names[c.AgentKey]; n != "" {
		return n
	}
	o.unnamed[c.Model]++
	n := c.Model
	if k := o.unnamed[c.Model]; k > 1 {
		n += "-" + strconv.Itoa(k)
	}
	o.names[c.AgentKey] = n
	return n
}

// restoredName notes a name read back from a cassette, so an unnamed agent
// met later does not take a number already given.
func (o *Organizer) restoredName(model, name string) {
	k := 0
	if name == model {
		k = 1
	} else if rest, ok := strings.CutPrefix(name, model+"-"); ok {
		k, _ = strconv.Atoi(rest)
	}
	o.unnamed[model] = max(o.unnamed[model], k)
}
