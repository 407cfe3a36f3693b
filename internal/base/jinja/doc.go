// Package jinja parses and renders the Jinja templates adkproxy reads from
// ADK data (the simulated user's prompts and custom instructions, persona
// behavior texts) with gonja, in a sandbox: a template can load no other,
// so an include or import fails instead of reading a file into a prompt
// (ADK renders these templates in a sandbox too).
package jinja
