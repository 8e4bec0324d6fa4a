# sources of framework/stats are added here
