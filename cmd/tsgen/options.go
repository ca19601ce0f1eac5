package main

import (
	"bytes"
	"fmt"

	"hermes-desktop/backend/settings"
)

// pageOptions are the editable options as the page needs them: every key
// in order, the checkboxes, when a change applies, each text field's label.
type pageOptions struct {
	keys, bools, atOnce, backends []string
	labels                        map[string]string
}

func readOptions() (pageOptions, error) {
	p := pageOptions{labels: map[string]string{}}
	for _, o := range settings.Options {
		if !o.Editable {
			continue
		}
		p.keys = append(p.keys, o.Key())
		switch o.Applies {
		case settings.AppliesAtOnce:
			p.atOnce = append(p.atOnce, o.Key())
		case settings.AppliesToBackends:
			p.backends = append(p.backends, o.Key())
		}
		switch {
		case o.Type == settings.TypeBool:
			p.bools = append(p.bools, o.Key())
		case o.Label == "":
			return pageOptions{}, fmt.Errorf("tsgen: option %s: a text field needs a label", o.Field)
		default:
			p.labels[o.Key()] = o.Label
		}
	}
	return p, nil
}

// writeOptions writes what the Settings page knows of settings.Options:
// the keys it edits, which are checkboxes, when a change applies, the
// draft the form holds and the labels Go starts a field's errors with. The
// page kept its own lists of these, and a test compared one with Go's.
func writeOptions(_ *generator, b *bytes.Buffer) error {
	p, err := readOptions()
	if err != nil {
		return err
	}
	b.WriteString("\n/**\n * What the Settings form edits (settings.Options, Editable): every text box\n" +
		" * as typed (numbers too, so a bad entry can be shown and fixed), every\n" +
		" * checkbox as a boolean. \"\" means \"the default\" for every text field.\n */\n")
	b.WriteString("export interface SettingsDraft {\n")
	for _, k := range p.keys {
		ts := "string"
		if _, text := p.labels[k]; !text {
			ts = "boolean"
		}
		fmt.Fprintf(b, "  %s: %s;\n", k, ts)
	}
	b.WriteString("}\n\n/** A setting the Settings page edits, by its config.json key. */\n")
	b.WriteString("export type SettingsKey = keyof SettingsDraft;\n")
	b.WriteString("\n/** The settings the page edits with a checkbox (settings.TypeBool). */\n")
	writeLiteralUnion(b, "BoolKey", p.bools)
	writeKeyList(b, "BOOL_KEYS", "BoolKey", "The checkboxes' keys, as a value.", p.bools)
	writeKeyList(b, "APPLIED_AT_ONCE", "SettingsKey",
		"The keys the running app takes as soon as they are saved (settings.AppliesAtOnce); the\n * others apply when it next starts.", p.atOnce)
	writeKeyList(b, "RESTARTS_BACKENDS", "SettingsKey",
		"The keys a backend is given as it starts (settings.AppliesToBackends): a change\n * restarts the backends with the app.", p.backends)
	b.WriteString("\n/** The settings the page edits in a text box. */\n")
	b.WriteString("export type TextKey = Exclude<SettingsKey, BoolKey>;\n")
	writeKeyList(b, "SETTINGS_KEYS", "SettingsKey", "The keys of SettingsDraft in the page's order (settings.Options').", p.keys)
	b.WriteString("\n/**\n * The label of each text field as the page shows it: Go starts a field's\n" +
		" * error with it (settings.Labels), which is how a refusal from Go lands\n * under its field.\n */\n")
	b.WriteString("export const FIELD_LABELS: Readonly<Record<TextKey, string>> = {\n")
	for _, k := range p.keys {
		if l, ok := p.labels[k]; ok {
			fmt.Fprintf(b, "  %s: %s,\n", k, quote(l))
		}
	}
	b.WriteString("};\n")
	return nil
}

// writeLiteralUnion writes a union of string literals.
func writeLiteralUnion(b *bytes.Buffer, name string, values []string) {
	if len(values) == 0 {
		fmt.Fprintf(b, "export type %s = never;\n", name)
		return
	}
	fmt.Fprintf(b, "export type %s =\n", name)
	for i, v := range values {
		end := ""
		if i == len(values)-1 {
			end = ";"
		}
		fmt.Fprintf(b, "  | %s%s\n", quote(v), end)
	}
}

// writeKeyList writes a constant list of keys.
func writeKeyList(b *bytes.Buffer, name, typ, doc string, keys []string) {
	fmt.Fprintf(b, "\n/** %s */\nexport const %s: readonly %s[] = [\n", doc, name, typ)
	for _, k := range keys {
		fmt.Fprintf(b, "  %s,\n", quote(k))
	}
	b.WriteString("];\n")
}
