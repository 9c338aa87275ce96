# The devices our guests need, and no others (configure
# --without-default-devices --with-devices-x86_64=perfvm; build.sh
# copies this file into the source as
# configs/devices/x86_64-softmmu/perfvm.mak): the pc machine (i440fx,
# with its ISA serial ports) and virtio-9p over PCI, which carries the
# root file system and the tree.
CONFIG_I440FX=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_9P=y
