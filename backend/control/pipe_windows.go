package control

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the control channel is a named pipe, the convention of Docker
// and containerd. Named pipes live in one namespace that every user of the
// machine shares, so unlike the Unix socket, whose state dir keeps others
// out, a pipe proves nothing by its name: its name carries the user's SID,
// its DACL admits that user only, its owner is checked by every client
// (checkServer) and by a successor that joins it (listen), and the server
// checks each client's user (checkPeer).

// pipePrefix starts every control pipe's name.
const pipePrefix = `\\.\pipe\hermes-desktop-`

// address is the control pipe's name for stateDir:
// \\.\pipe\hermes-desktop-<user SID>-<hash of the absolute state dir>.
// The hash is of the upper-cased path, as NTFS compares names without
// case: two spellings of one directory name one pipe.
func address(stateDir string) (string, error) {
	user, err := currentUser()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return "", fmt.Errorf("control: state dir %s: %w", stateDir, err)
	}
	sum := sha256.Sum256([]byte(strings.ToUpper(abs)))
	return pipePrefix + user.String() + "-" + hex.EncodeToString(sum[:8]), nil
}

// currentUser is the SID of the user this process runs as, read once.
var currentUser = sync.OnceValues(func() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("control: read this process's user: %w", err)
	}
	sid, err := tu.User.Sid.Copy()
	if err != nil {
		return nil, fmt.Errorf("control: read this process's user: %w", err)
	}
	return sid, nil
})

// pipeSDDL is the control pipe's security descriptor: owned by the user
// (explicitly: an elevated token's default owner is Administrators, and
// clients check the owner), and a protected DACL (P: nothing inherited)
// granting the user everything and nobody else anything.
func pipeSDDL(user *windows.SID) string {
	return "O:" + user.String() + "D:P(A;;GA;;;" + user.String() + ")"
}

// pipeSecurity builds the security attributes every instance is created
// with; Windows uses them for the first instance of a pipe only.
func pipeSecurity() (*windows.SecurityAttributes, error) {
	user, err := currentUser()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString(pipeSDDL(user))
	if err != nil {
		return nil, fmt.Errorf("control: pipe security descriptor: %w", err)
	}
	return &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}, nil
}

// pipeBuffer is the size hint of each direction's buffer: a status answer
// fits; Windows enforces quotas of its own.
const pipeBuffer = 64 << 10

// createInstance creates one server instance of the pipe name, waiting
// for a client. first asks for the pipe's first instance only
// (FILE_FLAG_FIRST_PIPE_INSTANCE: Windows fails with ERROR_ACCESS_DENIED
// if the pipe exists). Every instance of a pipe must agree on the mode and
// the instance limit: they are set here only.
func createInstance(name string, first bool, sa *windows.SecurityAttributes) (windows.Handle, error) {
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, fmt.Errorf("control: pipe name %q: %w", name, err)
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	h, err := windows.CreateNamedPipe(name16, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, sa)
	if err != nil {
		return 0, fmt.Errorf("control: create pipe %s: %w", name, err)
	}
	return h, nil
}

// checkOwner makes sure the pipe that h is an end of belongs to the
// current user: only its owner (or an administrator) could have given it
// that owner, and it controls the pipe's DACL.
func checkOwner(h windows.Handle, name string) error {
	user, err := currentUser()
	if err != nil {
		return err
	}
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("control: read the owner of %s: %w", name, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("control: read the owner of %s: %w", name, err)
	}
	if owner == nil || !owner.Equals(user) {
		return fmt.Errorf("%w: %s belongs to %v, not to %v", errForeignPipe, name, owner, user)
	}
	return nil
}

// errForeignPipe means the pipe at our name is not ours: another user
// created it first (squatting), and we neither join nor talk to it.
var errForeignPipe = errors.New("control: a pipe of another user")

// pipeState is what WaitNamedPipe tells of a pipe's name.
type pipeState int

const (
	pipeAbsent    pipeState = iota // no instance: the name is free
	pipeListening                  // an instance waits for a client: someone serves
	pipeBusy                       // instances exist, all connected: requests in flight, nobody listening
)

// statePipe asks whether name exists and whether anyone listens on it,
// without connecting to it: WaitNamedPipe fails at once with
// ERROR_FILE_NOT_FOUND for no instance, succeeds if one waits for a
// client, and times out (ERROR_SEM_TIMEOUT) if all are connected.
func statePipe(name string) (pipeState, error) {
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, fmt.Errorf("control: pipe name %q: %w", name, err)
	}
	r, _, errno := procWaitNamedPipeW.Call(uintptr(unsafe.Pointer(name16)), 1)
	switch {
	case r != 0:
		return pipeListening, nil
	case errors.Is(errno, windows.ERROR_FILE_NOT_FOUND):
		return pipeAbsent, nil
	case errors.Is(errno, windows.ERROR_SEM_TIMEOUT):
		return pipeBusy, nil
	}
	return 0, fmt.Errorf("control: wait for pipe %s: %w", name, errno)
}

var procWaitNamedPipeW = windows.NewLazySystemDLL("kernel32.dll").NewProc("WaitNamedPipeW")
