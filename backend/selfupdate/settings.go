package selfupdate

import (
	"errors"
	"net/url"

	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
)

// The update settings of a running instance. The window's Settings page
// saves the feed and "update automatically"; a user who just typed a feed
// expects "Check now" to ask it, and the sidebar to stop saying "Updates
// off", without relaunching the app. A value given by flag or environment
// variable wins over the settings at start (app/cli), and so it does
// here: it stays until the app is started without it.

// SettingsSaved puts the saved settings that a running instance can take
// at once into effect: the update feed (the next check, scheduled or
// "Check now", asks the new one; none turns updates off) and automatic
// updates. The other settings apply at the next start.
func (u *Updater) SettingsSaved(s settings.Settings) {
	if u.cfg.AutomaticFrom == "" {
		u.setAutomatic(s.UpdateAutomatically)
	}
	if u.cfg.FeedFrom == "" {
		u.feed.change(s.UpdateFeed)
	}
}

// setAutomatic turns automatic updates on or off; the scheduler reads it
// after its next download.
func (u *Updater) setAutomatic(on bool) {
	if u.automatic.Swap(on) == on {
		return
	}
	u.status.change(func(i *update.Info) { i.Automatic = on })
}

// feedInUse forgets what another feed offered and resets the status to
// "off" (and why) or "not checked yet" for feed (feedLine.onUse).
func (u *Updater) feedInUse(feed string, c *update.Client) {
	u.offer.forget()
	u.status.set(func(i *update.Info) {
		i.Feed = redactFeed(feed)
		i.Latest, i.Notes, i.Command, i.CheckedAt = "", "", "", nil
		i.Bytes, i.Total, i.Speed, i.Download = 0, 0, 0, nil
		i.State, i.Error, i.Reason, i.BuildOff = update.StateIdle, "", "", false
		if err := c.Disabled(); err != nil {
			i.State, i.Error, i.Reason, i.BuildOff = update.StateOff, err.Error(), update.Reason(err), errors.Is(err, update.ErrBuildOff)
		}
	})
}

// redactFeed masks a password in a feed URL: status is shown, printed and
// pasted into bug reports.
func redactFeed(feed string) string {
	u, err := url.Parse(feed)
	if err != nil {
		return "" // never in use: the client refuses it too
	}
	return u.Redacted()
}
