package handles

import (
	"os"
	"testing"
	"time"
)

// A read blocked on a pipe ends once InterruptRead is called: on Windows
// a synchronous pipe read, which ignores deadlines and Close, is
// cancelled (the lifeline's and the instance's output readers).
func TestInterruptReadEndsABlockedRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	returned := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 1))
		errc <- err
		close(returned)
	}()
	InterruptRead(returned, r)
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the read: got no error, want it interrupted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read still blocks 10s after InterruptRead")
	}
}
