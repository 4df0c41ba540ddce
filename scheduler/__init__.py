"""The fakeapi scheduler: kube-scheduler's framework shape with the DynamicResources plugin."""
