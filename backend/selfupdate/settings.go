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
// off", without restarting the app. A value given by flag or environment
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
		u.changeFeed(s.UpdateFeed)
	}
}

// setAutomatic turns automatic updates on or off; the scheduler reads it
// after its next download.
func (u *Updater) setAutomatic(on bool) {
	if u.automatic.Swap(on) == on {
		return
	}
	u.set(func(i *update.Info) { i.Automatic = on })
	u.host.PublishStatus()
}

// changeFeed puts feed in use: now if no check, download or apply runs,
// else when it ends (releaseSem), so that it finishes with the feed it
// started with.
func (u *Updater) changeFeed(feed string) {
	u.mu.Lock()
	u.nextFeed = &feed
	u.mu.Unlock()
	if u.tryAcquire() {
		u.switchFeed()
		u.releaseSem()
	}
}

// switchFeed puts the saved feed in use, if it differs from the one in
// use: saving another setting must not forget a ready update. Call with
// the semaphore held.
func (u *Updater) switchFeed() {
	u.mu.Lock()
	next := u.nextFeed
	u.nextFeed = nil
	changed := next != nil && *next != u.feed
	if changed {
		u.useFeed(*next)
	}
	u.mu.Unlock()
	if !changed {
		return
	}
	select { // the scheduler plans its first check of the new feed
	case u.feedChanged <- struct{}{}:
	default: // one is pending already: it reads the feed in use then
	}
	u.host.PublishStatus()
}

// useFeed makes feed the one in use: a new client, and a status that says
// "off" (and why) or "not checked yet". What another feed offered is
// forgotten. Call with the semaphore and mu held, or before the updater is
// shared.
func (u *Updater) useFeed(feed string) {
	cfg := u.base
	cfg.FeedURL = feed
	c := update.New(cfg)
	u.client.Store(c)
	u.feed, u.release, u.artifact = feed, nil, ""
	i := &u.info
	i.Feed = redactFeed(feed)
	i.Latest, i.Notes, i.Command, i.CheckedAt = "", "", "", nil
	i.Bytes, i.Total, i.Speed = 0, 0, 0
	i.State, i.Error, i.Reason, i.BuildOff = update.StateIdle, "", "", false
	if err := c.Disabled(); err != nil {
		i.State, i.Error, i.Reason, i.BuildOff = update.StateOff, err.Error(), update.Reason(err), errors.Is(err, update.ErrBuildOff)
	}
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
