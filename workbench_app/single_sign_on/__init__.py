"""Single sign-on with OpenID Connect: configuration, the provider round trip, the directory's claims."""
