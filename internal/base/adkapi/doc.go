// Package adkapi is a small client for ADK API servers: the HTTP API that
// `adk api_server` serves in every ADK language (Python, Go, Java, JS).
//
// It uses only the subset the languages share: create a session
// (POST {prefix}/apps/{app}/users/{user}/sessions with {"state": …}), run a
// turn (POST {prefix}/run_sse with exactly appName, userId, sessionId,
// newMessage, streaming and an optional stateDelta, because ADK Go
// decodes the body strictly), get a session, list the apps and check health.
//
// Events are kept as the server sent them: every Event carries its raw JSON
// next to the few fields a caller needs to decode (author, content, ids), so
// writing a session back out loses nothing. Errors name the URL and quote the
// server's answer; an HTTP status other than 2xx is an *HTTPError, an error
// reported inside the event stream a *StreamError.
package adkapi
