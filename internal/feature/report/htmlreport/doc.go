// Package htmlreport renders runs as self-contained HTML pages (styles
// inline, no script, nothing fetched from the network): a conversation as
// a timeline of steps — user turn, model calls by agent, tool calls and
// results, answers — for one run (WriteRun, 'adkproxy ls --format html')
// and side by side for two (WriteDiff, 'adkproxy diff --format html'),
// changes highlighted and a summary on top, every invocation collapsible,
// readable from a phone's width to a desktop's.
package htmlreport
