package instance

import "os"

// pollable has nothing to do on Windows.
func pollable(*os.File) {}
