package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/update"
)

// cmdRemoteCores finds the remote cores the way a remote backend's start
// does (remotecore.LocateCores) and says where they are, or why there are
// none: exit 1 then, with the reason on stderr.
func cmdRemoteCores(args []string, version string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("remote-cores", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, `print JSON: {"dir": "...", "version": "...", "platforms": ["linux/amd64", ...]}`)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: hermes-desktop remote-cores [--json]\n\n"+
			"Shows the cores this app installs on remote (ssh) hosts, found like a remote backend's\n"+
			"start finds them: $%s, else cores/ beside the executable, else\n"+
			"../lib/hermes-desktop/cores from it. Exits 1 when there are none of this version.\n\n", remotecore.CoresEnv)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hermes-desktop: remote-cores: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	info, err := remoteCores(version)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	if *asJSON {
		data, _ := json.Marshal(info)
		fmt.Fprintln(stdout, string(data))
		return ExitOK
	}
	fmt.Fprintf(stdout, "remote cores %s in %s:\n", info.Version, info.Dir)
	for _, p := range info.Platforms {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	return ExitOK
}

// remoteCores locates the cores and checks that each core SHA256SUMS lists
// is there; a directory without any is an error too.
func remoteCores(version string) (update.CoresInfo, error) {
	cores, err := remotecore.LocateCores(version)
	if err != nil {
		return update.CoresInfo{}, err
	}
	info := update.CoresInfo{Dir: cores.Dir, Version: cores.Version, Platforms: []string{}}
	for _, p := range cores.Platforms() {
		core, err := cores.Core(p)
		if err != nil {
			return update.CoresInfo{}, err
		}
		if _, err := os.Stat(core.Path); err != nil {
			return update.CoresInfo{}, fmt.Errorf("remote cores in %s: the core for %s: %w", cores.Dir, p, err)
		}
		info.Platforms = append(info.Platforms, p.String())
	}
	if len(info.Platforms) == 0 {
		return update.CoresInfo{}, fmt.Errorf("remote cores in %s: %s lists no core", cores.Dir, remotecore.SumsFile)
	}
	return info, nil
}
