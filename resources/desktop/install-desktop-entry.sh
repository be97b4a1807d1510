#!/bin/sh
# Add OkBot to the desktop's application menu for the current user (no root needed), or remove it.
#
#   sh install-desktop-entry.sh              install: menu entry, icons, AppStream metainfo
#   sh install-desktop-entry.sh --uninstall  remove them again (your data dir is not touched)
#   sh install-desktop-entry.sh --exec CMD   the command the menu entry runs (default: the packaged
#                                            app next to this script, else `okbot` on PATH)
#
# Files go to ${XDG_DATA_HOME:-~/.local/share}: applications/, icons/hicolor/, metainfo/.
# Works from the packaged app (okbot/install-desktop-entry.sh) and from an installed wheel
# (<site-packages>/okbot/resources/desktop/install-desktop-entry.sh).
set -eu

APP_ID=io.okbot.OkBot
SIZES="16 32 48 64 128 256 512"
here=$(cd "$(dirname "$0")" && pwd)
if [ -d "$here/_internal/okbot/resources" ]; then
    resources="$here/_internal/okbot/resources"
    default_exec="$here/okbot"
else
    resources=$(cd "$here/.." && pwd)
    default_exec=$(command -v okbot || true)
fi
data_home=${XDG_DATA_HOME:-$HOME/.local/share}

action=install
exec_cmd=$default_exec
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) action=uninstall ;;
        --exec) shift; exec_cmd=${1:?--exec needs a command} ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-desktop-entry.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

refresh() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data_home/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data_home/icons/hicolor" || true
}

if [ "$action" = uninstall ]; then
    rm -f "$data_home/applications/$APP_ID.desktop" "$data_home/metainfo/$APP_ID.metainfo.xml" \
          "$data_home/icons/hicolor/scalable/apps/$APP_ID.svg"
    for size in $SIZES; do rm -f "$data_home/icons/hicolor/${size}x${size}/apps/$APP_ID.png"; done
    refresh
    echo "Removed the OkBot menu entry and icons from $data_home."
    exit 0
fi

if [ -z "$exec_cmd" ]; then
    echo "install-desktop-entry.sh: no okbot found; pass --exec /path/to/okbot" >&2
    exit 1
fi
case "$exec_cmd" in
    *' '*|*'"'*) echo "install-desktop-entry.sh: the okbot path must not contain spaces or quotes: $exec_cmd" >&2; exit 1 ;;
esac

mkdir -p "$data_home/applications" "$data_home/metainfo" "$data_home/icons/hicolor/scalable/apps"
sed -e "s|^Exec=.*|Exec=$exec_cmd|" -e "s|^TryExec=.*|TryExec=$exec_cmd|" \
    "$resources/desktop/$APP_ID.desktop" > "$data_home/applications/$APP_ID.desktop"
cp "$resources/desktop/$APP_ID.metainfo.xml" "$data_home/metainfo/$APP_ID.metainfo.xml"
cp "$resources/icons/okbot.svg" "$data_home/icons/hicolor/scalable/apps/$APP_ID.svg"
for size in $SIZES; do
    mkdir -p "$data_home/icons/hicolor/${size}x${size}/apps"
    cp "$resources/icons/okbot-$size.png" "$data_home/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
refresh
echo "Installed the OkBot menu entry ($exec_cmd) into $data_home."
echo "Remove it with: sh $0 --uninstall"
