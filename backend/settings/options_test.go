package settings

import (
	"reflect"
	"strings"
	"testing"
)

// TestJSONKeysPinned pins config.json's keys and which of them the
// Settings page edits: a rename in the option table or the struct must
// fail here, since a saved file with the old key would be set aside.
func TestJSONKeysPinned(t *testing.T) {
	var got []string
	typ := reflect.TypeFor[Settings]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, key)
	}
	want := []string{"backends", "backend_command", "ready_regex", "health_path", "grace", "min_orphan_age",
		"start_at_login", "sample_interval", "max_duplicate_children", "restart_on_fd_pressure", "nofile_soft_limit",
		"update_feed", "update_automatically", "ssh_config", "disconnect_grace"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got keys %q, want %q", got, want)
	}
	var editable []string
	for _, k := range want {
		if _, err := (Edit{Fields: []string{k}}).Apply(Settings{}); err == nil {
			editable = append(editable, k)
		}
	}
	if !reflect.DeepEqual(editable, want[1:]) {
		t.Errorf("got editable %q, want every key but backends", editable)
	}
}
