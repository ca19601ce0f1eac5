package instance

// CloseShimPipes lets the black-box tests close the launcher's ends of the
// shim's pipes, as a launcher that died would.
func (i *Instance) CloseShimPipes() { i.shim.close() }
