"""The runtime stage: compiled rulebooks that play the rules, without the parser or compiler."""
