// Creating a session under a name the caller chooses, so a re-run of the
// same conversation gets the same session id.

package adkapi

import (
	"context"
	"net/http"
)

// CreateSessionWithID creates session id for user in app with the
// initial state (nil for none): POST {prefix}/apps/{app}/users/{user}/
// sessions/{id}, which ADK Python and ADK-JS serve. A session that
// already exists is an *HTTPError (400).
func (c *Client) CreateSessionWithID(ctx context.Context, app, user, id string, state map[string]any) (*Session, error) {
	if state == nil {
		state = map[string]any{}
	}
	var s Session
	err := c.getJSON(ctx, http.MethodPost, c.url("apps", app, "users", user, "sessions", id), map[string]any{"state": state}, &s)
	if err != nil {
		return nil, err
	}
	return &s, nil
}
