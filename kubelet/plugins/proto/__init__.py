"""Generated protocol buffer modules of the kubelet's plugin APIs (see ``codegen``)."""
