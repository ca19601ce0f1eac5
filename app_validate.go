package main

import "hermes-desktop/backend/settings"

// FeedURLError says why the Settings page's update feed would be refused,
// as Save would say it ("Update feed: ..."), or "" when it would not: the
// page asks while the person types, so the field shows Go's one rule
// (settings.ValidateFeedURL) and no copy of it. "" (no feed) is fine.
func (a *App) FeedURLError(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if err := settings.ValidateFeedURL(raw); err != nil {
		return err.Error(), nil
	}
	return "", nil
}
