// Package wire is the one reader of model and tool traffic: it turns a
// recorded exchange into the step model (what a model call was sent and
// answered, what a tool was asked and returned), whatever dialect carried
// it. Every other package reads exchanges through it.
//
// A dialect is one file of this package: a value implementing Dialect,
// listed in the one list of dialects. Reading is lazy and each reader decodes
// only what its answer needs, so callers on the replay and recording paths
// ask for the narrowest answer: Recognise for a path, StepOf for a
// trajectory, RequestOf for a whole request.
package wire
