# sources of framework/vcs are added here
