//! Bindings only: batch calls over typed arrays into the pgpage core.
