package instance

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// Params is what an instance needs from its launcher.
type Params struct {
	// Spec is what to run; its defaults are applied.
	Spec *runspec.Spec
	// Owner and OwnerNonce name the launcher (HERMES_PARENT_* of the shim).
	Owner      proc.Identity
	OwnerNonce string
	// StateDir holds the ready files; HermesHome is the backend's HERMES_HOME.
	StateDir   string
	HermesHome string
	// Self is the hermes-desktop executable, for the shim.
	Self string
	// ViaShim starts the backend behind the watchdog shim.
	ViaShim bool
	// Log receives the output lines.
	Log *logs.Log
	// Reclaimer, if set, learns about every child we start and collect.
	Reclaimer *reclaim.Reclaimer
	// Contain is the launcher's containment plan; nil means the process
	// tree only (tests).
	Contain *Plan
	// LeakGuard configures each run's leak guard (Sample); Logger, which
	// may be nil, receives its warnings.
	LeakGuard leakguard.Config
	Logger    *slog.Logger
}

// errSpawn wraps errors that happen before the process exists.
var errSpawn = errors.New("instance: start")

// Spawn starts one run of a backend as p describes it: the watchdog shim
// (or the backend itself without one) in a group of its own, held by the
// launcher's containment plan, its output read into the backend's log.
// Behind the shim the backend starts only at Release, once the caller has
// recorded the shim; without one (--no-shim, debugging) it runs at once.
func Spawn(p Params) (*Instance, error) {
	nonce, err := lockfile.NewNonce()
	if err != nil {
		return nil, err
	}
	runDir := filepath.Join(p.StateDir, "run")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %w", errSpawn, runDir, err)
	}
	i := &Instance{
		spec:      p.Spec,
		nonce:     nonce,
		argv:      p.Spec.Command,
		log:       p.Log,
		exe:       StampExecutable(p.Spec.Command[0]),
		reclaimer: p.Reclaimer,
		shim:      shimLink{known: make(chan struct{})},
		out:       output{log: p.Log, ready: run.NewPortMatcher(p.Spec.ReadyRegex), readyFile: filepath.Join(runDir, nonce+".ready")},
		exited:    make(chan struct{}),
		rec:       newRecordState(p.LeakGuard, p.Logger, p.Spec.Name, p.Log, lockfile.Owner{Nonce: p.OwnerNonce, PID: p.Owner.PID, Start: p.Owner.Start}),
	}
	i.cont = planContainment(p, nonce, i.shim.known)
	env, token, err := backendEnv(p, nonce, i.out.readyFile)
	if err != nil {
		return nil, err
	}
	i.token = token
	if err := i.start(p, env); err != nil {
		return nil, err
	}
	i.rec.created = time.Now()
	return i, nil
}

// backendEnv builds the environment of the Hermes contract on top of ours,
// dropping any HERMES_PARENT_* / session values we inherited ourselves. A
// desktop-owned backend also gets HERMES_DESKTOP=1 and a fresh session
// token, which it returns; a dashboard gets neither (Hermes would hide it
// from host discovery, and it makes and injects its own token).
func backendEnv(p Params, nonce, readyFile string) (env []string, token string, err error) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case hermes.EnvDesktop, hermes.EnvParentPID, hermes.EnvParentMarker, hermes.EnvParentNonce,
			hermes.EnvSessionToken, hermes.EnvHome, hermes.EnvReadyFile:
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		hermes.EnvParentPID+"="+strconv.Itoa(p.Owner.PID),
		hermes.EnvParentMarker+"="+proc.HermesMarker(p.Owner),
		hermes.EnvParentNonce+"="+nonce,
		hermes.EnvHome+"="+p.HermesHome,
		hermes.EnvReadyFile+"="+readyFile,
	)
	if p.Spec.Kind == settings.KindCustom && os.Getenv("PYTHONUNBUFFERED") == "" {
		// Python block-buffers stdout into a pipe: `python3 -m http.server`
		// would print its port only when it exits, so it would never be
		// ready, and its log would come in 8 KiB lumps (issue 23, item 2).
		env = append(env, "PYTHONUNBUFFERED=1")
	}
	if !p.Spec.DesktopOwned() {
		return env, "", nil
	}
	if token, err = hermes.NewSessionToken(); err != nil {
		return nil, "", fmt.Errorf("%w: %w", errSpawn, err)
	}
	return append(env, hermes.EnvDesktop+"="+hermes.DesktopOn, hermes.EnvSessionToken+"="+token), token, nil
}

// start starts the leader, in a group of its own, with env and its output
// on pipes of ours: the shim, through watchdog.StartShim, or without one
// the backend itself. Then it pins the leader and starts watching it.
func (i *Instance) start(p Params, env []string) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%w: stdout pipe: %w", errSpawn, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("%w: stderr pipe: %w", errSpawn, err)
	}
	prepare := func(cmd *exec.Cmd) error {
		cmd.Env = env
		setupCommand(cmd)
		cmd.Stdout, cmd.Stderr = outW, errW
		return nil
	}
	var cmd *exec.Cmd
	if p.ViaShim {
		cmd, i.shim.client, err = watchdog.StartShim(p.Self, i.shimOptions(p), prepare, i.startCommand)
	} else {
		cmd = exec.Command(i.argv[0], i.argv[1:]...)
		_ = prepare(cmd)
		err = i.startCommand(cmd)
	}
	outW.Close() // the child has its copies; ours would keep EOF from coming
	errW.Close()
	if err == nil {
		i.argv, i.leader.cmd, i.out.outR, i.out.errR = cmd.Args, cmd, outR, errR
		err = i.identify(cmd.Process.Pid)
	}
	if err != nil {
		outR.Close()
		errR.Close()
		i.shim.close()
		if !errors.Is(err, errSpawn) {
			err = fmt.Errorf("%w: %w", errSpawn, err) // the shim's pipes
		}
		return err
	}
	i.watch()
	return nil
}

// startCommand starts cmd through proc's registry of the children we wait
// for (the waiter), not proc.CollectOrphans' nor the reclaimer's, before
// its zombie can be seen, however soon it exits; the reclaimer, when there
// is one, learns the backend's nonce first.
func (i *Instance) startCommand(cmd *exec.Cmd) error {
	if i.reclaimer != nil {
		i.reclaimer.Expect(i.nonce)
	}
	waited, err := proc.StartChild(cmd)
	i.leader.waited = waited
	if err != nil {
		return fmt.Errorf("%w %q: %w", errSpawn, cmd.Args[0], err)
	}
	return nil
}

// identify pins the started child's identity and a handle on it. Our
// uncollected child cannot vanish or be replaced, so this only fails if
// /proc is unreadable; then we cannot supervise and must not run: the
// child is killed and collected.
func (i *Instance) identify(pid int) error {
	var err error
	if i.leader.id, err = proc.Lookup(pid); err == nil {
		i.leader.handle, err = proc.Open(i.leader.id)
	}
	if err == nil {
		return nil
	}
	_ = i.leader.cmd.Process.Kill()
	i.leader.collect()
	if i.reclaimer != nil {
		i.reclaimer.ChildExited()
	}
	return fmt.Errorf("%w: identify pid %d: %w", errSpawn, pid, err)
}
