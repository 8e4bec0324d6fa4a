# sources of framework/measure are added here
