package control

import (
	"fmt"
	"net"
	"runtime"

	"golang.org/x/sys/windows"
)

// checkPeer refuses clients of other users. The pipe's DACL already does;
// this also covers a loosened DACL. It asks the pipe who sent the request
// (ImpersonateNamedPipeClient, at the identification level the client
// allows) rather than looking up the client's process: a PID can be reused
// once its process exits, a token cannot be swapped under us.
func checkPeer(conn net.Conn) error {
	h, err := pipeHandle(conn)
	if err != nil {
		return err
	}
	user, err := clientUser(h)
	if err != nil {
		return fmt.Errorf("control: pipe client: %w", err)
	}
	return ownUser(user)
}

// checkPeerBeforeRead has nothing to check yet: a pipe tells its client
// only by what was read from it (ImpersonateNamedPipeClient fails with
// ERROR_CANNOT_IMPERSONATE before that).
func checkPeerBeforeRead(net.Conn) error { return nil }

// checkPeerAfterRead is checkPeer, once the request is in.
func checkPeerAfterRead(conn net.Conn) error { return checkPeer(conn) }

// checkServer makes sure the pipe a client reached is the current user's:
// a pipe's name proves nothing, since any user may create any name that
// nobody holds.
func checkServer(conn net.Conn) error {
	h, err := pipeHandle(conn)
	if err != nil {
		return err
	}
	return checkOwner(h, conn.RemoteAddr().String())
}

// ownUser accepts the current user only, and not as a deny-only SID: that
// is how a restricted token (CreateRestrictedToken) keeps a user's name
// but not its access.
func ownUser(user windows.SIDAndAttributes) error {
	me, err := currentUser()
	if err != nil {
		return err
	}
	if user.Sid == nil || !user.Sid.Equals(me) {
		return fmt.Errorf("control: peer %v is not ours (%v)", user.Sid, me)
	}
	if user.Attributes&windows.SE_GROUP_USE_FOR_DENY_ONLY != 0 {
		return fmt.Errorf("control: peer %v is ours for denying only (a restricted token)", user.Sid)
	}
	return nil
}

// clientUser reads the user of the pipe client's token. Impersonation
// changes the calling thread, so it runs on a locked thread of its own;
// should RevertToSelf fail, that thread ends with its goroutine instead of
// serving other goroutines as the client.
func clientUser(h windows.Handle) (windows.SIDAndAttributes, error) {
	type result struct {
		user windows.SIDAndAttributes
		err  error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		user, err := impersonatedUser(h)
		if rerr := windows.RevertToSelf(); rerr != nil {
			done <- result{err: fmt.Errorf("revert to self: %w", rerr)}
			return // still locked: the thread exits with us
		}
		runtime.UnlockOSThread()
		done <- result{user, err}
	}()
	r := <-done
	return r.user, r.err
}

// impersonatedUser impersonates the client of h on this thread and reads
// the user of the token it gets.
func impersonatedUser(h windows.Handle) (windows.SIDAndAttributes, error) {
	if r, _, errno := procImpersonateNamedPipeClient.Call(uintptr(h)); r == 0 {
		return windows.SIDAndAttributes{}, fmt.Errorf("impersonate: %w", errno)
	}
	var tok windows.Token
	if err := windows.OpenThreadToken(windows.CurrentThread(), windows.TOKEN_QUERY, true, &tok); err != nil {
		return windows.SIDAndAttributes{}, fmt.Errorf("open the client's token: %w", err)
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return windows.SIDAndAttributes{}, fmt.Errorf("read the client's user: %w", err)
	}
	sid, err := tu.User.Sid.Copy()
	if err != nil {
		return windows.SIDAndAttributes{}, fmt.Errorf("read the client's user: %w", err)
	}
	return windows.SIDAndAttributes{Sid: sid, Attributes: tu.User.Attributes}, nil
}

// pipeHandle is the handle of either end of a pipe: go-winio's client end
// and our server end both have one.
func pipeHandle(conn net.Conn) (windows.Handle, error) {
	f, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return 0, fmt.Errorf("control: %T is not a named pipe", conn)
	}
	return windows.Handle(f.Fd()), nil
}

var procImpersonateNamedPipeClient = windows.NewLazySystemDLL("advapi32.dll").NewProc("ImpersonateNamedPipeClient")
