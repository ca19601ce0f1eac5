package main

// Start at login: per-OS, setStartAtLogin(on, self) creates or removes the
// entry the desktop session reads at login to start hermes-desktop.
//   Linux:   ~/.config/autostart/hermes-desktop.desktop (XDG autostart)
//   macOS:   ~/Library/LaunchAgents/io.hermes.desktop.plist (RunAtLoad)
//   Windows: HKCU\Software\Microsoft\Windows\CurrentVersion\Run

const autostartName = "hermes-desktop"
