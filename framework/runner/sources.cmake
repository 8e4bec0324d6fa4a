# sources of framework/runner are added here
