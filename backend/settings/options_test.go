package settings

import (
	"reflect"
	"slices"
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

// TestOptionsCoverSettings: every field of Settings is one option, whose
// type fits the field; flags, variables and keys are each named once; every
// editable text field has a label (its errors start with it).
func TestOptionsCoverSettings(t *testing.T) {
	typ := reflect.TypeFor[Settings]()
	fields, flags, envs := map[string]int{}, map[string]int{}, map[string]int{}
	for _, o := range Options {
		flags[o.Flag]++
		envs[o.Env]++
		if o.Field == "" {
			if o.Editable || o.Label != "" || o.Applies != AppliesAtOnce {
				t.Errorf("option --%s: not saved, yet editable, labelled or applied on restart", o.Flag)
			}
			continue
		}
		fields[o.Field]++
		f, ok := typ.FieldByName(o.Field)
		if !ok {
			t.Errorf("option %s: got no such Settings field", o.Field)
			continue
		}
		if o.Field == "Backends" {
			continue
		}
		kind := f.Type.Kind()
		if kind == reflect.Pointer {
			kind = f.Type.Elem().Kind()
		}
		want := map[reflect.Kind][]Type{reflect.String: {TypeText, TypeDuration}, reflect.Int: {TypeInt}, reflect.Bool: {TypeBool}}[kind]
		if !slices.Contains(want, o.Type) {
			t.Errorf("option %s: got type %q for a %s field, want one of %q", o.Field, o.Type, f.Type, want)
		}
		if o.Editable && (o.Label == "") != (o.Type == TypeBool) {
			t.Errorf("option %s: got label %q, want one exactly when it is not a checkbox", o.Field, o.Label)
		}
	}
	for i := range typ.NumField() {
		if n := fields[typ.Field(i).Name]; n != 1 {
			t.Errorf("Settings.%s: got %d options, want 1", typ.Field(i).Name, n)
		}
	}
	for name, n := range flags {
		if name != "" && n > 1 {
			t.Errorf("flag %q: got %d options, want 1", name, n)
		}
	}
	for name, n := range envs {
		if name != "" && n > 1 {
			t.Errorf("variable %q: got %d options, want 1", name, n)
		}
	}
}
