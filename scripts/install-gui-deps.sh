#!/usr/bin/env bash
# Installs the Debian packages that the Wails GUI builds (cgo + GTK3 +
# WebKitGTK 4.1 and 4.0: the two Linux flavours) and the headless GUI smoke
# test and journeys (Xvfb + D-Bus + screenshot + AT-SPI) need, skipping
# those already installed. Debian 12 (it has both WebKitGTK versions); safe
# to run repeatedly.
set -euo pipefail

pkgs=(
	gcc libc6-dev pkg-config     # cgo and the pkg-config lookups of wails' GTK code
	libgtk-3-dev                 # gtk+-3.0
	libwebkit2gtk-4.1-dev        # webkit2gtk-4.1: the webkit41 flavour (wails' webkit2_41 tag)
	libwebkit2gtk-4.0-dev        # webkit2gtk-4.0: the webkit40 flavour (wails v2's default)
	xvfb xauth                   # xvfb-run needs xauth; xvfb only recommends it
	dbus dbus-x11                # dbus-run-session (session bus for the tray's D-Bus
	                             # StatusNotifierItem and GTK), dbus-launch
	libgl1-mesa-dri              # software GL for WebKit under Xvfb (no GPU)
	fonts-dejavu-core            # some font, so pages render text
	imagemagick                  # `import -window root` for the smoke test screenshot
	xdotool                      # the smoke test finds and closes the window by name
	x11-utils                    # xprop: the smoke test reads the window's icon
	libglib2.0-bin               # gdbus: the smoke test drives the tray menu over D-Bus
	at-spi2-core                 # the accessibility bus the journeys find buttons on
	python3-gi gir1.2-atspi-2.0  # scripts/gui-a11y.py reads that bus (system python)
)

exec "$(dirname "$0")/apt-install.sh" "gui deps" "${pkgs[@]}"
