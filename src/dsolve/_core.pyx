# The native core is being written; see issue 3.
