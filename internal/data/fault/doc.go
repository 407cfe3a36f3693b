// Package fault owns the faults adkproxy injects: the spec people write
// ("call 1: 429", "invocation 2 step 0: reset after 3 events"), where one
// applies (Where) and what is answered instead (What), written in the
// shapes the Gemini API answers with. Replay (proxy) decides when a fault
// fires; the scripted fake (internal/engine/fake) serves them as script items.
package fault
